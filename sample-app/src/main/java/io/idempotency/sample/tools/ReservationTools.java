package io.idempotency.sample.tools;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

import io.idempotency.IdempotentInvocation;
import io.idempotency.IdempotentTool;
import io.idempotency.Reconciliation;
import io.idempotency.key.IdempotencyKey;
import io.idempotency.sample.external.Warehouse;
import io.idempotency.sample.external.Warehouse.Reservation;

import org.springframework.ai.tool.annotation.Tool;
import org.springframework.stereotype.Component;
import org.springframework.web.client.RestClient;

/**
 * Reservations live in a warehouse that reserves stock for every request it receives, and whose search lists
 * a reservation only an hour after it is made. So {@code reserve_stock} stores a reference derived from the
 * call's key on the reservation, but its reconcile method cannot tell, within that hour, a reservation that
 * was never made from one not yet listed: it says so by throwing, never by answering "not found", which would
 * settle the call as failed. A call whose outcome is unknown is then tried by the reconciler
 * {@code idempotency.reconciler.max-attempts} times and handed to a human, who looks in the warehouse and
 * settles it on the page's operator panel.
 */
@Component
public class ReservationTools {

	private final RestClient warehouse;

	ReservationTools(ExternalClients clients) {
		this.warehouse = clients.warehouse();
	}

	@Tool(name = "reserve_stock", description = "Reserve units of a SKU in the warehouse for an account")
	@IdempotentTool(reconcile = "findReservation")
	public Reservation reserveStock(String accountName, String sku, int quantity) {
		Map<String, Object> body = new LinkedHashMap<>();
		body.put("accountName", accountName.trim());
		body.put("sku", sku.trim());
		body.put("quantity", quantity);
		body.put("reference", reference());
		return this.warehouse.post().uri("/reservations").body(body).retrieve().body(Reservation.class);
	}

	/**
	 * Did the reservation of this call get made? Asked by the reconciler when the outcome is unknown. Found in
	 * the warehouse's search: yes. Not found: perhaps not yet listed, so no answer.
	 */
	Reconciliation<Reservation> findReservation(IdempotencyKey key) {
		String reference = key.externalReference("whs");
		Reservation[] found = this.warehouse.get()
			.uri("/reservations?reference={reference}", reference)
			.retrieve()
			.body(Reservation[].class);
		if (found != null && found.length > 0) {
			return Reconciliation.found(found[0]);
		}
		throw new IllegalStateException("No reservation " + reference + " in the warehouse's search, which lists one "
				+ Warehouse.SEARCH_LAG_HOURS + " hour after it is made: cannot tell yet whether it was made");
	}

	/** The call's key as a reference; with idempotency off there is no key, so a new one each call. */
	private static String reference() {
		return IdempotentInvocation.find()
			.map((call) -> call.key().externalReference("whs"))
			.orElseGet(() -> "whs-" + UUID.randomUUID());
	}

}
