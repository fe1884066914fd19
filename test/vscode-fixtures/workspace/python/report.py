"""Prints a quote table for a few order sizes."""

from pricing import PriceBook, Tier


def build_price_book() -> PriceBook:
    book = PriceBook(tiers=[Tier(10, 0.05), Tier(50, 0.12)])
    book.set_price("mug", 7.50)
    book.set_price("tea", 4.25)
    return book


def quote_table(book: PriceBook, sku: str, sizes: list[int]) -> list[str]:
    rows = []
    for size in sizes:
        total = book.quote(sku, size)
        rows.append(f"{sku:>5} x{size:<4} {total:>9.2f} {book.currency}")
    return rows


def main() -> None:
    book = build_price_book()
    for sku in ("mug", "tea"):
        for row in quote_table(book, sku, [1, 10, 60]):
            print(row)


if __name__ == "__main__":
    main()
