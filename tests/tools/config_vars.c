/* config_vars.c - print the configuration spec's variables, one per line: name, default and help,
 * tab-separated (the readme_variables test compares the names with README's table). */
#include "runtime/config.h"

#include <stdio.h>

int main(void) {
  for (int i = 0; i < ergo__config_nspec; i++) {
    const ergo__config_row *r = &ergo__config_spec[i];
    printf("%s\t%s\t%s\n", r->var, r->def ? r->def : r->unset ? r->unset : "-", r->help);
  }
  return 0;
}
