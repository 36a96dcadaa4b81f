package play

import (
	"context"
	"fmt"
	"net"
	"net/http"

	"github.com/gorilla/websocket"

	"github.com/galaxygym/galaxygym/server"
	"github.com/galaxygym/galaxygym/server/wsconn"
)

// ListenAndServe serves the training protocol of srv and the page of h on
// one TCP address (see [Mount]) until srv's Shutdown; it then returns
// http.ErrServerClosed. Both are served through srv's one HTTP
// configuration ([server.Server.ListenAndServeHandler]: the request,
// response and keep-alive timeouts and the per-address connection limit
// of srv's config), so neither face can listen without them. Like
// server.Server.ListenAndServe it refuses (a *server.ConfigError) a
// non-loopback address without a token unless the server's config allows
// it, and calls ready with the bound address once listening. It refuses
// (a [*ConfigError]) a page whose websocket timeouts (Config.Websocket)
// are not srv's.
func (h *Handler) ListenAndServe(srv *server.Server, addr string, ready func(net.Addr)) error {
	if want := srv.Config().Websocket().WithDefaults(); !sameTimeouts(h.ws, want) {
		return &ConfigError{Reason: fmt.Sprintf("the page's websocket timeouts (ping %v, pong %v, write %v, handshake %v) are not the server's "+
			"(ping %v, pong %v, write %v, handshake %v): set Config.Websocket to the server config's Websocket()",
			h.ws.PingInterval, h.ws.PongTimeout, h.ws.WriteTimeout, h.ws.HandshakeTimeout,
			want.PingInterval, want.PongTimeout, want.WriteTimeout, want.HandshakeTimeout)}
	}
	h.mu.Lock()
	closed := h.closed
	h.mu.Unlock()
	if closed {
		return http.ErrServerClosed
	}
	return srv.ListenAndServeHandler(addr, Mount(srv.Handler(), h), ready)
}

// sameTimeouts reports whether a and b have the same timeouts.
func sameTimeouts(a, b wsconn.Settings) bool {
	return a.PingInterval == b.PingInterval && a.PongTimeout == b.PongTimeout &&
		a.WriteTimeout == b.WriteTimeout && a.HandshakeTimeout == b.HandshakeTimeout
}

// Shutdown ends the page's tables and its connections, each with close
// code 1001 (going away), and waits until their close handshakes are over
// or ctx is done (it then returns ctx's error). New page connections are
// refused from then on (503). The listener the page shares with the
// training protocol is the training server's: the caller then calls that
// server's Shutdown, which stops accepting connections for both.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	conns := make([]*conn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	h.Close()
	for _, c := range conns {
		c.close(websocket.CloseGoingAway, "play: shutting down") // Close's own, unless a new one came
		select {
		case <-c.gone:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}
