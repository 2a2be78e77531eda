#include "tests/check.h"
int main(void) { CHECK_INT_EQ(1 + 1, 2); return check_summary(); }
