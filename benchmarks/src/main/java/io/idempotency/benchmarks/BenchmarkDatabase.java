package io.idempotency.benchmarks;

import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.idempotency.ledger.LedgerSchema;
import io.idempotency.testsupport.TestDatabase;
import io.idempotency.testsupport.TestDatabases;

/**
 * A benchmark's database: a pool of its own on the server the tests find (large enough for 32 threads),
 * a fresh ledger table, and the {@linkplain Floors floors} on the same pool.
 */
final class BenchmarkDatabase implements AutoCloseable {

	static final String TABLE = "tool_audit_benchmark";

	static final int POOL_SIZE = 40;

	private final TestDatabase database;

	private final HikariDataSource pool;

	/** The pool's settings, from which {@link #poolOf} makes others. */
	private final HikariConfig poolSettings;

	private final HikariDataSource manualCommitPool;

	private final Floors floors;

	private final String keyPrefix = HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong())
			+ HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong())
			+ HexFormat.of().toHexDigits(ThreadLocalRandom.current().nextLong());

	private final AtomicLong keys = new AtomicLong();

	BenchmarkDatabase(TestDatabase database) {
		this.database = database;
		HikariDataSource found = (HikariDataSource) TestDatabases.dataSource(database);
		HikariConfig config = new HikariConfig();
		config.setJdbcUrl(found.getJdbcUrl());
		config.setUsername(found.getUsername());
		config.setPassword(found.getPassword());
		config.setMaximumPoolSize(POOL_SIZE);
		config.setMinimumIdle(POOL_SIZE);
		config.setPoolName("benchmark");
		this.poolSettings = config;
		this.pool = new HikariDataSource(config);
		HikariConfig manualCommit = new HikariConfig();
		config.copyStateTo(manualCommit);
		manualCommit.setAutoCommit(false);
		manualCommit.setMaximumPoolSize(4);
		manualCommit.setMinimumIdle(1);
		manualCommit.setPoolName("benchmark-auto-commit-off");
		this.manualCommitPool = new HikariDataSource(manualCommit);
		LedgerSchema.drop(this.pool, TABLE);
		LedgerSchema.create(this.pool, TABLE);
		this.floors = new Floors(database, this.pool);
	}

	TestDatabase database() {
		return this.database;
	}

	DataSource dataSource() {
		return this.pool;
	}

	/** A pool on the same database whose connections have auto-commit off, as JPA applications often do. */
	DataSource withAutoCommitOff() {
		return this.manualCommitPool;
	}

	/** Another pool on the same database, of {@code size} connections, all opened at once; the caller closes it. */
	HikariDataSource poolOf(int size, String name) {
		HikariConfig config = new HikariConfig();
		this.poolSettings.copyStateTo(config);
		config.setMaximumPoolSize(size);
		config.setMinimumIdle(size);
		config.setPoolName(name);
		return new HikariDataSource(config);
	}

	/** A key no call has used: 64 hex characters, as the library's are. */
	String nextKey() {
		return this.keyPrefix + HexFormat.of().toHexDigits(this.keys.incrementAndGet());
	}

	/** The floors, on this database's pool. */
	Floors floors() {
		return this.floors;
	}

	@Override
	public void close() {
		LedgerSchema.drop(this.pool, TABLE);
		this.manualCommitPool.close();
		this.pool.close();
	}

}
