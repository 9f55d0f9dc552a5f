package io.idempotency.benchmarks;

import java.util.Arrays;
import java.util.List;

/** The median the benchmark mains report over their rounds: the middle value, or the mean of the middle two. */
public final class Medians {

	private Medians() {
	}

	/** The median of the values. */
	public static double of(List<Double> values) {
		return of(values.stream().mapToDouble(Double::doubleValue).toArray());
	}

	/** The median of one column of rows of figures. */
	public static double of(List<double[]> rows, int column) {
		return of(rows.stream().mapToDouble((row) -> row[column]).toArray());
	}

	private static double of(double[] values) {
		double[] sorted = values.clone();
		Arrays.sort(sorted);
		int middle = sorted.length / 2;
		return (sorted.length % 2 == 1) ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
	}

}
