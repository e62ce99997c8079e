module loki-vl-worker/go-fixtures

go 1.22

require (
	github.com/dustin/go-humanize v1.0.1
	github.com/prometheus/common v0.62.0
)

require (
	github.com/prometheus/client_model v0.6.1 // indirect
	google.golang.org/protobuf v1.36.1 // indirect
)
