module github.com/galaxygym/galaxygym/tools/zstdcompare

go 1.26.8

replace github.com/galaxygym/galaxygym => ../..

require (
	github.com/DataDog/zstd v1.5.7
	github.com/galaxygym/galaxygym v0.0.0-00010101000000-000000000000
	github.com/klauspost/compress v1.20.1
	github.com/parquet-go/parquet-go v0.32.0
)

require (
	github.com/andybalholm/brotli v1.2.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/parquet-go/bitpack v1.0.0 // indirect
	github.com/parquet-go/jsonlite v1.0.0 // indirect
	github.com/pierrec/lz4/v4 v4.1.29 // indirect
	github.com/sbinet/npyio v0.6.0 // indirect
	github.com/twpayne/go-geom v1.6.1 // indirect
	golang.org/x/sys v0.48.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)
