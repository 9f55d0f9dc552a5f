package io.idempotency.ledger;

import java.lang.reflect.Method;

import javax.sql.DataSource;

import org.springframework.jdbc.datasource.TransactionAwareDataSourceProxy;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.ResourceTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationUtils;
import org.springframework.util.ReflectionUtils;

/** Which {@code DataSource} a transaction manager's transactions hold connections of. */
final class TransactionManagers {

	private TransactionManagers() {
	}

	/** Whether the transaction manager's transactions hold the connections of this {@code DataSource}. */
	static boolean joins(PlatformTransactionManager transactionManager, DataSource dataSource) {
		DataSource managed = managedDataSource(transactionManager);
		return managed != null && boundAs(managed) == boundAs(dataSource);
	}

	/**
	 * The object a {@code DataSource}'s connections are bound to transactions by: a transaction-aware proxy's
	 * target (its connections join the target's transactions, as a {@code DataSourceTransactionManager} of the
	 * proxy binds the target), else the {@code DataSource} itself, as Spring unwraps resources.
	 */
	private static Object boundAs(DataSource dataSource) {
		DataSource target = dataSource;
		while (target instanceof TransactionAwareDataSourceProxy proxy && proxy.getTargetDataSource() != null) {
			target = proxy.getTargetDataSource();
		}
		return TransactionSynchronizationUtils.unwrapResourceIfNecessary(target);
	}

	/** The {@code DataSource} whose connections a transaction manager binds to its transactions, if one. */
	private static DataSource managedDataSource(PlatformTransactionManager transactionManager) {
		if (transactionManager instanceof ResourceTransactionManager resources
				&& resources.getResourceFactory() instanceof DataSource dataSource) {
			return dataSource;
		}
		// JpaTransactionManager and HibernateTransactionManager: their resource is the EntityManagerFactory or
		// SessionFactory, and they bind the connection of their DataSource besides, named so.
		Method getDataSource = (transactionManager != null)
				? ReflectionUtils.findMethod(transactionManager.getClass(), "getDataSource") : null;
		if (getDataSource != null && getDataSource.getParameterCount() == 0
				&& DataSource.class.isAssignableFrom(getDataSource.getReturnType())) {
			return (DataSource) ReflectionUtils.invokeMethod(getDataSource, transactionManager);
		}
		return null;
	}

}
