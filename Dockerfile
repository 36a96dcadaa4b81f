# syntax=docker/dockerfile:1
# The galaxygym command as a container image: a static binary (CGO_ENABLED=0)
# on distroless/static (CA certificates for the object stores, no shell),
# running as the non-root user 65532. deploy/k8s runs it; docs/scaling.md.
#   docker build -t galaxygym:latest .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# -tags gcs,azure adds the gs:// and azblob:// drivers (docs/scaling.md).
RUN CGO_ENABLED=0 go build -trimpath -tags gcs,azure -ldflags="-s -w" -o /out/galaxygym ./cmd/galaxygym

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/galaxygym /usr/local/bin/galaxygym
USER 65532:65532
EXPOSE 8765
ENTRYPOINT ["/usr/local/bin/galaxygym"]
