import { Inventory } from '../inventory';
import { formatMoney } from '../money';
import { Order, placeOrder } from '../orders';

/** Checks a cart out as one order against the shop's inventory; returns the receipt line. */
export function checkout(cartId: string, order: Order, inventory: Inventory): string {
  const total = placeOrder(order, inventory);
  return `${cartId}: ${formatMoney(total)}`;
}
