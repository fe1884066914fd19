module example.com/shop/retry

go 1.22
