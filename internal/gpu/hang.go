package gpu

import "sync"

// A driver call that hangs cannot be interrupted: the binding's watchdog
// ends the process. Before it does, it calls Hung, which runs the hooks
// registered with OnHang, so that what was measured until then is written
// (bench's partial report).
var hang struct {
	mu    sync.Mutex
	next  int
	hooks map[int]func(msg string)
}

// OnHang registers f to run, with the watchdog's message, when a driver
// call hangs; remove unregisters it. f must return promptly: the process
// ends after it.
func OnHang(f func(msg string)) (remove func()) {
	hang.mu.Lock()
	defer hang.mu.Unlock()
	if hang.hooks == nil {
		hang.hooks = map[int]func(string){}
	}
	id := hang.next
	hang.next++
	hang.hooks[id] = f
	return func() {
		hang.mu.Lock()
		defer hang.mu.Unlock()
		delete(hang.hooks, id)
	}
}

// Hung runs the hooks registered with OnHang (a binding's watchdog calls
// it before it ends the process); each hook runs once.
func Hung(msg string) {
	hang.mu.Lock()
	hooks := make([]func(string), 0, len(hang.hooks))
	for id, f := range hang.hooks {
		hooks = append(hooks, f)
		delete(hang.hooks, id)
	}
	hang.mu.Unlock()
	for _, f := range hooks {
		f(msg)
	}
}
