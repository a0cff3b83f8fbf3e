module airlock.invalid/airlock

go 1.19
