/* The exec target: a program that does nothing. Built twice, static and dynamic, so that exec figures do
 * not depend on how the system's /bin/true is linked. */
int main(void) { return 0; }
