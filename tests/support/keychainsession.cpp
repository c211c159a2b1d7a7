// SPDX-License-Identifier: MIT
#include "tests/support/keychainsession.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace tidemark::test {
namespace {

bool onPath(const char *program) {
    const std::string command = std::string("command -v ") + program + " >/dev/null 2>&1";
    return std::system(command.c_str()) == 0;
}

} // namespace

int reRunInKeychainSession(int argc, char **argv) {
    if (const char *inside = std::getenv("TIDEMARK_KEYCHAIN_SESSION"); inside && std::string(inside) == "1")
        return -1;
    for (const char *program : {"dbus-run-session", "gnome-keyring-daemon"}) {
        if (!onPath(program)) {
            std::fprintf(stderr,
                         "FAIL: %s is not installed: the keychain suites need a real Secret Service "
                         "(run scripts/deps.sh: dbus-daemon, gnome-keyring)\n",
                         program);
            return 1;
        }
    }
    char dirTemplate[] = "/tmp/tidemark-keyring-XXXXXX";
    if (!mkdtemp(dirTemplate)) {
        std::perror("mkdtemp");
        return 1;
    }
    const std::string dir = dirTemplate;
    for (const char *sub : {"/data", "/run", "/config", "/cache"})
        ::mkdir((dir + sub).c_str(), 0700);
    ::setenv("XDG_DATA_HOME", (dir + "/data").c_str(), 1);
    ::setenv("XDG_RUNTIME_DIR", (dir + "/run").c_str(), 1);
    ::setenv("XDG_CONFIG_HOME", (dir + "/config").c_str(), 1);
    ::setenv("XDG_CACHE_HOME", (dir + "/cache").c_str(), 1);
    ::setenv("TIDEMARK_KEYCHAIN_SESSION", "1", 1);
    ::unsetenv("DBUS_SESSION_BUS_ADDRESS");

    const char *script =
        "printf '%s' tidemark-test-keyring | gnome-keyring-daemon --unlock --components=secrets "
        ">/dev/null || { echo 'FAIL: gnome-keyring-daemon did not start' >&2; exit 1; }; "
        "exec \"$@\"";
    std::vector<std::string> words{"dbus-run-session", "--", "sh", "-c", script, "sh", "/proc/self/exe"};
    char self[4096];
    const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self - 1);
    if (length > 0)
        words.back().assign(self, size_t(length));
    for (int i = 1; i < argc; ++i)
        words.emplace_back(argv[i]);
    std::vector<char *> args;
    for (std::string &word : words)
        args.push_back(word.data());
    args.push_back(nullptr);

    std::fflush(nullptr);
    const pid_t child = ::fork();
    if (child == 0) {
        ::execvp(args[0], args.data());
        std::perror("dbus-run-session");
        ::_exit(127);
    }
    int status = 0;
    while (child > 0 && ::waitpid(child, &status, 0) < 0) {
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
    if (child < 0 || !WIFEXITED(status))
        return 1;
    return WEXITSTATUS(status);
}

} // namespace tidemark::test
