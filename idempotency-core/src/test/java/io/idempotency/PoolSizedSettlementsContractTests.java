package io.idempotency;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import io.idempotency.key.IdempotencyKey;
import io.idempotency.reconcile.SettlementRefusedException;
import io.idempotency.reconcile.SettlementRefusedException.Reason;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Operators settling one call at once, more of them than the pool has connections (24 in the tests): exactly one
 * wins, every other is refused with a reason an operator reads, and nothing else escapes.
 */
abstract class PoolSizedSettlementsContractTests extends SettlementsContractTests {

	@Test
	void moreOperatorsThanThePoolHasConnectionsSettleOneCallOnce() throws Exception {
		int threads = 40;
		ExecutorService pool = Executors.newFixedThreadPool(threads);
		try {
			for (int round = 0; round < 6; round++) {
				IdempotencyKey key = refundAwaitingHuman("pool-race-" + round, "Henderson Industrial", 1250);
				CyclicBarrier start = new CyclicBarrier(threads);
				List<Future<String>> settling = new ArrayList<>();
				for (int t = 0; t < threads; t++) {
					String operator = "ops-" + t;
					int kind = t % 3;
					settling.add(pool.submit(() -> {
						start.await();
						try {
							switch (kind) {
								case 0 -> this.settlements.settleFailed(key, operator, "no refund at the bank");
								case 1 -> this.settlements.settleSucceeded(key,
										"{\"accountName\":\"Henderson Industrial\",\"cents\":1250,\"reference\":\"RF-1\"}",
										operator, "the bank shows RF-1");
								default -> this.settlements.retry(key, operator, "the bank is back");
							}
							return operator;
						}
						catch (SettlementRefusedException refused) {
							assertThat(refused.reason()).isIn(Reason.ALREADY_SETTLED, Reason.NOT_AWAITING_HUMAN);
							return null;
						}
					}));
				}
				List<String> winners = new ArrayList<>();
				for (Future<String> future : settling) {
					String winner = future.get();
					if (winner != null) {
						winners.add(winner);
					}
				}
				assertThat(winners).as("round %d", round).hasSize(1);
				assertThat(this.settlements.find(key).orElseThrow().settledBy()).isEqualTo(winners.get(0));
				this.jdbc.update("DELETE FROM " + LEDGER_TABLE);
			}
		}
		finally {
			pool.shutdownNow();
		}
	}

}
