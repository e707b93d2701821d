package proc

// PrestartWaiting reports whether a prestarted supervisor waits for a program.
func PrestartWaiting() bool { return warm.Load() != nil }
