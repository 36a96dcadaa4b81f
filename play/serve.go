package play

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/galaxygym/galaxygym/server"
)

// ListenAndServe serves the training protocol of srv and the page of h on
// one TCP address (see [Mount]) until [Handler.Shutdown]; it then returns
// http.ErrServerClosed. Like server.Server.ListenAndServe it refuses a
// non-loopback address without a token unless the server's config allows
// it, and calls ready with the bound address once listening.
func (h *Handler) ListenAndServe(srv *server.Server, addr string, ready func(net.Addr)) error {
	cfg := srv.Config()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("play: listen: %w", err)
	}
	if a, ok := l.Addr().(*net.TCPAddr); ok && !a.IP.IsLoopback() && cfg.Token == "" && !cfg.AllowRemoteWithoutToken {
		l.Close()
		return &ConfigError{Reason: fmt.Sprintf("refusing to listen on %s, which is not a loopback address, without a token: "+
			"set a token (--token or $GALAXYGYM_TOKEN), or say --allow-remote-without-token to serve anyone who can reach it", a)}
	}
	hs := &http.Server{Handler: Mount(srv.Handler(), h), ReadHeaderTimeout: cfg.HandshakeTimeout,
		ErrorLog: slog.NewLogLogger(h.cfg.Logger.Handler(), slog.LevelWarn)}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		l.Close()
		return http.ErrServerClosed
	}
	h.http = hs
	h.mu.Unlock()
	if ready != nil {
		ready(l.Addr())
	}
	return hs.Serve(l)
}

// Shutdown stops accepting connections (those of both protocols), ends
// the page's tables and connections, and waits for the HTTP server until
// ctx is done. The caller then shuts the training server down.
func (h *Handler) Shutdown(ctx context.Context) error {
	h.mu.Lock()
	hs := h.http
	h.mu.Unlock()
	h.Close()
	if hs == nil {
		return nil
	}
	if err := hs.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
