import { Inventory, OutOfStockError } from './inventory';
import { Money, addMoney, money, multiply } from './money';

export interface OrderLine {
  sku: string;
  quantity: number;
  unitPrice: Money;
}

export interface Order {
  id: string;
  lines: OrderLine[];
}

export function orderTotal(order: Order): Money {
  return order.lines.reduce((sum, line) => addMoney(sum, multiply(line.unitPrice, line.quantity)), money(0));
}

/** Reserves every line or none: a line that cannot be reserved releases the ones before it. */
export function placeOrder(order: Order, inventory: Inventory): Money {
  const done: OrderLine[] = [];
  try {
    for (const line of order.lines) {
      inventory.reserve(line.sku, line.quantity);
      done.push(line);
    }
  } catch (err) {
    for (const line of done) inventory.release(line.sku, line.quantity);
    if (err instanceof OutOfStockError) throw new Error(`order ${order.id} rejected: ${err.message}`);
    throw err;
  }
  return orderTotal(order);
}
