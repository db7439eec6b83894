// Found through -I include (a relative path in the compilation database).
#define OFFSET 1
