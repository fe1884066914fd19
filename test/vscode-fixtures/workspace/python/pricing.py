"""Price lists with quantity discounts."""

from dataclasses import dataclass, field


@dataclass
class Tier:
    min_quantity: int
    discount: float


@dataclass
class PriceBook:
    currency: str = "EUR"
    prices: dict[str, float] = field(default_factory=dict)
    tiers: list[Tier] = field(default_factory=list)

    def set_price(self, sku: str, price: float) -> None:
        if price < 0:
            raise ValueError(f"negative price for {sku}")
        self.prices[sku] = price

    def discount_for(self, quantity: int) -> float:
        best = 0.0
        for tier in self.tiers:
            if quantity >= tier.min_quantity:
                best = max(best, tier.discount)
        return best

    def quote(self, sku: str, quantity: int) -> float:
        unit = self.prices[sku]
        return round(unit * quantity * (1 - self.discount_for(quantity)), 2)
