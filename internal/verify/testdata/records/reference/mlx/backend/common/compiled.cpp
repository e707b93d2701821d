// compiled
int compiled() { return 1; }
