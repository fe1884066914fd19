import { Inventory } from '../inventory';
import { checkout } from './cart';

const shop = new Inventory();

/** POST /carts/:id/checkout */
export function handleCheckout(cartId: string, body: string): { status: number; text: string } {
  try {
    return { status: 200, text: checkout(cartId, JSON.parse(body), shop) };
  } catch (err) {
    return { status: 409, text: (err as Error).message };
  }
}
