/* SPDX-License-Identifier: Apache-2.0 */
#include "doctor.h"
int
dr_workspace_main(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 2;
}
