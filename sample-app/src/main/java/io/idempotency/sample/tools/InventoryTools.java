package io.idempotency.sample.tools;

import org.springframework.ai.tool.annotation.Tool;
import org.springframework.stereotype.Component;

/**
 * Stock levels. Not an idempotent tool, on purpose: a read changes nothing, so asking twice is harmless,
 * and replaying a stored answer within the run would only hide a stock level that changed meanwhile.
 */
@Component
public class InventoryTools {

	@Tool(name = "check_inventory", description = "Units of a SKU in stock")
	public int checkInventory(String sku) {
		return sku.trim().endsWith("4411") ? 1200 : 40;
	}

}
