export class OutOfStockError extends Error {
  constructor(readonly sku: string, readonly requested: number, readonly available: number) {
    super(`${sku}: requested ${requested}, only ${available} left`);
  }
}

/** Stock levels per SKU, with reservations held until an order is paid. */
export class Inventory {
  private readonly stock = new Map<string, number>();
  private readonly reserved = new Map<string, number>();

  restock(sku: string, quantity: number): void {
    this.stock.set(sku, (this.stock.get(sku) ?? 0) + quantity);
  }

  available(sku: string): number {
    return (this.stock.get(sku) ?? 0) - (this.reserved.get(sku) ?? 0);
  }

  reserve(sku: string, quantity: number): void {
    const free = this.available(sku);
    if (quantity > free) throw new OutOfStockError(sku, quantity, free);
    this.reserved.set(sku, (this.reserved.get(sku) ?? 0) + quantity);
  }

  release(sku: string, quantity: number): void {
    const held = this.reserved.get(sku) ?? 0;
    this.reserved.set(sku, Math.max(0, held - quantity));
  }
}
