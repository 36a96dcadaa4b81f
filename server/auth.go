package server

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// checkOrigin allows requests without an Origin header (non-browser
// clients), same-host origins, and the configured allowed origins.
func (s *Server) checkOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	for _, o := range s.cfg.AllowedOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	return err == nil && strings.EqualFold(u.Host, r.Host)
}

// loopbackHost reports whether host (a Host header's name, port removed)
// names the local machine: "localhost" or a loopback IP address.
func loopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return ip != nil && ip.IsLoopback()
}

// hostAllowed reports whether a request's Host header is acceptable: any
// with a token; otherwise a loopback name or one of AllowedHosts.
func (s *Server) hostAllowed(r *http.Request) bool {
	if s.cfg.Token != "" {
		return true
	}
	host := r.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if loopbackHost(host) {
		return true
	}
	for _, a := range s.cfg.AllowedHosts {
		if a == "*" || strings.EqualFold(a, host) {
			return true
		}
	}
	return false
}

// checkHost refuses (403) every request whose Host header is not allowed
// (see [Config.AllowedHosts]).
func (s *Server) checkHost(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.hostAllowed(r) {
			s.m.errors.WithLabelValues("bad_host").Inc()
			http.Error(w, fmt.Sprintf("server: Host %q is not a loopback name; a server without a token answers only "+
				"localhost, 127.0.0.1 and ::1 (and the names given with --allow-host)", r.Host), http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// authorized checks the bearer token, when one is configured.
func (s *Server) authorized(r *http.Request) bool {
	if s.cfg.Token == "" {
		return true
	}
	got := r.URL.Query().Get("token")
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(h, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return false
		}
		got = strings.TrimSpace(tok)
	}
	if got == "" {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.cfg.Token)) == 1
}

func (s *Server) auth(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.authorized(r) {
			s.unauthorized(w)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (s *Server) unauthorized(w http.ResponseWriter) {
	s.m.errors.WithLabelValues("unauthorized").Inc()
	w.Header().Set("WWW-Authenticate", `Bearer realm="galaxygym"`)
	http.Error(w, "server: missing or wrong bearer token", http.StatusUnauthorized)
}
