package io.idempotency.sample;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

import javax.sql.DataSource;

import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.datasource.init.ResourceDatabasePopulator;
import org.springframework.stereotype.Component;

/** Creates the sample's tables where they are missing, on PostgreSQL or MariaDB. */
@Component
public class SampleSchema {

	SampleSchema(DataSource dataSource) throws SQLException {
		String product;
		try (Connection connection = dataSource.getConnection()) {
			product = connection.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
		}
		String platform = product.contains("postgres") ? "postgresql"
				: (product.contains("mariadb") || product.contains("mysql")) ? "mariadb" : null;
		if (platform == null) {
			throw new IllegalStateException("The sample runs on PostgreSQL or MariaDB, not on " + product
					+ ": point spring.datasource.url at one, or leave it unset for the embedded PostgreSQL");
		}
		new ResourceDatabasePopulator(new ClassPathResource("db/sample-" + platform + ".sql")).execute(dataSource);
	}

}
