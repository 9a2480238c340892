/* Stand-ins for the HIP runtime entry points a HIP host object calls, so the
   objects link into an executable or shared library without ROCm. Nothing
   here runs a kernel; the fixtures are only read, never executed. */
typedef struct { unsigned x, y, z; } dim3;
void **__hipRegisterFatBinary(const void *data) { (void)data; return 0; }
void __hipRegisterFunction(void **m, const void *h, char *f, const char *d, int t,
                           void *a, void *b, void *c, void *e, int *s) {
  (void)m; (void)h; (void)f; (void)d; (void)t; (void)a; (void)b; (void)c; (void)e; (void)s;
}
void __hipUnregisterFatBinary(void **m) { (void)m; }
int hipLaunchKernel(const void *f, dim3 g, dim3 b, void **a, unsigned long s, void *st) {
  (void)f; (void)g; (void)b; (void)a; (void)s; (void)st; return 0;
}
unsigned __hipPushCallConfiguration(dim3 g, dim3 b, unsigned long s, void *st) {
  (void)g; (void)b; (void)s; (void)st; return 0;
}
unsigned __hipPopCallConfiguration(dim3 *g, dim3 *b, unsigned long *s, void **st) {
  (void)g; (void)b; (void)s; (void)st; return 0;
}
