/* main.c — placeholder until the command table lands. */
#include <stdio.h>
int main(void) { puts("kinf"); return 0; }
