// Package deploytest checks the fleet deployment files in deploy/fleet (the
// Kubernetes bench Job, the SkyPilot bench task, the server Deployment with
// PostgreSQL) against gpuscout itself: the files parse, their objects fit
// together (selectors, Secrets, ports, one bench pod per GPU node), and every
// gpuscout command line in them parses with the real command tree. It has
// tests only.
package deploytest
