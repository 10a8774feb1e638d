package server

import (
	"net"
	"testing"
	"time"
)

// At most n connections are open at once: the one beyond waits until one
// closes; Close ends a waiting Accept.
func TestLimitListener(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln := LimitListener(inner, 2)
	accepted := make(chan net.Conn, 3)
	acceptDone := make(chan error, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				acceptDone <- err
				return
			}
			accepted <- c
		}
	}()
	var clients []net.Conn
	for range 3 {
		c, err := net.Dial("tcp", inner.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		clients = append(clients, c)
	}
	var open []net.Conn
	for range 2 {
		select {
		case c := <-accepted:
			open = append(open, c)
		case <-time.After(30 * time.Second):
			t.Fatal("two connections not accepted within 30 s")
		}
	}
	select {
	case <-accepted:
		t.Fatal("a third connection was accepted while two were open; want it to wait")
	case <-time.After(200 * time.Millisecond):
	}
	open[0].Close()
	open[0].Close() // twice: one slot given back
	select {
	case c := <-accepted:
		c.Close()
	case <-time.After(30 * time.Second):
		t.Fatal("the third connection not accepted within 30 s of a close")
	}
	// Both slots are free but one: Accept waits; Close ends it.
	c4, err := net.Dial("tcp", inner.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c4.Close()
	select {
	case c := <-accepted:
		c.Close()
	case <-time.After(30 * time.Second):
		t.Fatal("a fourth connection not accepted within 30 s")
	}
	open[1].Close()
	ln.Close()
	select {
	case <-acceptDone:
	case <-time.After(30 * time.Second):
		t.Fatal("Accept did not return within 30 s of Close")
	}
}
