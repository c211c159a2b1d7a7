// SPDX-License-Identifier: MIT
#include "app/gui/windowmain.h"

int main(int argc, char *argv[]) {
    return tidemark::runWindow(argc, argv);
}
