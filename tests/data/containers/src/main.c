/* The executable's entry point: calls both launchers. */
void launch_scale(float *x, float s, int n);
void launch_add(const int *a, const int *b, int *c, int n);
int main(void) {
  float x[1] = {1};
  int a[1] = {1}, c[1];
  launch_scale(x, 2, 1);
  launch_add(a, a, c, 1);
  return 0;
}
