package io.idempotency.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnExpression;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * With no {@code spring.datasource.url}, a real PostgreSQL started from Maven Central binaries, no Docker
 * and no install, with its data in {@code sample.data-dir}: what the agent did, and a call left unknown,
 * are still there after a restart.
 * <p>
 * It stops when the context destroys its bean: after the pool, which depends on it, and so after everything
 * that uses the pool, the library's maintenance among them. It registers no shutdown hook of its own: the JVM
 * runs its hooks at once, so a hook of its own would stop the database on Ctrl-C while the context's graceful
 * shutdown still ran, and the maintenance's last writes and passes would meet a closed pool.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnExpression("'${spring.datasource.url:}'.isEmpty()")
class EmbeddedDatabase {

	private static final Logger logger = LoggerFactory.getLogger(EmbeddedDatabase.class);

	@Bean(destroyMethod = "close")
	EmbeddedPostgres embeddedPostgres(@Value("${sample.data-dir}") Path dataDir) throws IOException {
		Files.createDirectories(dataDir);
		EmbeddedPostgres postgres = EmbeddedPostgres.builder()
			.setDataDirectory(dataDir.toAbsolutePath())
			.setCleanDataDirectory(false)
			.setRegisterShutdownHook(false)
			.start();
		logger.info("Embedded PostgreSQL, data in {}", dataDir.toAbsolutePath());
		return postgres;
	}

	@Bean(destroyMethod = "close")
	DataSource dataSource(EmbeddedPostgres postgres) {
		HikariDataSource dataSource = new HikariDataSource();
		dataSource.setJdbcUrl(postgres.getJdbcUrl("postgres", "postgres"));
		dataSource.setMaximumPoolSize(10);
		return dataSource;
	}

}
