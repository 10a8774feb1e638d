package server

import (
	"net"
	"sync"
)

// Connection limits (serve's --max-conns): a team's browsers (a few
// connections each) and uploaders are well within the default, and each
// connection costs a goroutine and buffers.
const (
	DefaultMaxConns = 512
	MaxMaxConns     = 1 << 20
)

// LimitListener returns a listener that has at most n connections open at
// once: Accept waits while n are, and the connections beyond wait in the
// kernel's backlog until one closes. (golang.org/x/net/netutil's
// LimitListener does the same; it is not in this module's dependencies.)
func LimitListener(l net.Listener, n int) net.Listener {
	return &limitListener{Listener: l, slots: make(chan struct{}, n), done: make(chan struct{})}
}

type limitListener struct {
	net.Listener
	slots     chan struct{} // one element per open connection
	done      chan struct{} // closed by Close: a waiting Accept returns
	closeOnce sync.Once
}

func (l *limitListener) Accept() (net.Conn, error) {
	select {
	case l.slots <- struct{}{}:
	case <-l.done:
		return nil, net.ErrClosed
	}
	c, err := l.Listener.Accept()
	if err != nil {
		<-l.slots
		return nil, err
	}
	return &limitConn{Conn: c, release: func() { <-l.slots }}, nil
}

func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.closeOnce.Do(func() { close(l.done) })
	return err
}

// limitConn gives its slot back when closed (once, however often Close is
// called).
type limitConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}
