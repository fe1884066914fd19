// Package retry runs an operation until it succeeds, with exponential backoff.
package retry

import (
	"context"
	"errors"
	"time"
)

// ErrExhausted is returned when every attempt failed.
var ErrExhausted = errors.New("retry: attempts exhausted")

// Policy says how often and how patiently to retry.
type Policy struct {
	Attempts int
	Base     time.Duration
	Max      time.Duration
}

// Backoff returns the delay before attempt n (0-based), doubling up to Max.
func (p Policy) Backoff(n int) time.Duration {
	d := p.Base << n
	if d > p.Max || d <= 0 {
		return p.Max
	}
	return d
}

// Do calls op until it returns nil, the attempts run out or ctx is done.
func Do(ctx context.Context, p Policy, op func(context.Context) error) error {
	for n := 0; n < p.Attempts; n++ {
		if err := op(ctx); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(p.Backoff(n)):
		}
	}
	return ErrExhausted
}
