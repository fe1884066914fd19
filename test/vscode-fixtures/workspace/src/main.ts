import { Inventory } from './inventory';
import { formatMoney, money } from './money';
import { Order, placeOrder } from './orders';

function demo(): void {
  const inventory = new Inventory();
  inventory.restock('mug', 10);
  inventory.restock('tea', 3);

  const order: Order = {
    id: 'A-1001',
    lines: [
      { sku: 'mug', quantity: 2, unitPrice: money(7.5) },
      { sku: 'tea', quantity: 1, unitPrice: money(4.25) },
    ],
  };
  const total = placeOrder(order, inventory);
  console.log(`order ${order.id}: ${formatMoney(total)}; mugs left: ${inventory.available('mug')}`);

  try {
    placeOrder({ id: 'A-1002', lines: [{ sku: 'tea', quantity: 5, unitPrice: money(4.25) }] }, inventory);
  } catch (err) {
    console.log((err as Error).message);
  }
}

demo();
