/** Amounts are kept in integer cents so that sums never drift. */
export interface Money {
  cents: number;
  currency: string;
}

export function money(amount: number, currency = 'EUR'): Money {
  return { cents: Math.round(amount * 100), currency };
}

export function addMoney(a: Money, b: Money): Money {
  if (a.currency !== b.currency) {
    throw new Error(`cannot add ${a.currency} to ${b.currency}`);
  }
  return { cents: a.cents + b.cents, currency: a.currency };
}

export function multiply(m: Money, factor: number): Money {
  return { cents: Math.round(m.cents * factor), currency: m.currency };
}

export function formatMoney(m: Money): string {
  const sign = m.cents < 0 ? '-' : '';
  const abs = Math.abs(m.cents);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')} ${m.currency}`;
}
