// SPDX-License-Identifier: MIT
#pragma once

#include <QList>
#include <QString>
#include <QStringList>

namespace tidemark::cli {

class CliSession;
class SubcommandParser;

// One option of a command: `--name VALUE` when `valueName` is set, a flag otherwise. `help` is
// what the man page and the completion say of it.
struct OptionSpec {
    QString name;
    QString valueName; // empty: a flag
    QString help;

    bool takesValue() const { return !valueName.isEmpty(); }
};

// Parses nothing itself: it gets the command's options and positional arguments, already
// checked against its CommandSpec, and the session that opens the workspace.
using CommandHandler = int (*)(CliSession &session, const SubcommandParser &parser);

// One command of tidemark-cli, declared once: the dispatcher, the parser, the usage text, the
// man page and the bash completion all read this. Exit codes: 0 fine, 1 failed, 2 usage or
// validation error (a handler throws ValidationError for those).
struct CommandSpec {
    QString name = {}; // "table add", "run": a group's name, then the subcommand
    // Its entry in the usage text, verbatim (the "Commands:" list, two spaces in, continuation
    // lines aligned). Empty when another command's entry names it too ("table pause ID | table
    // resume ID"): that entry is shown for both.
    QString usage = {};
    QList<OptionSpec> options = {};
    int minPositional = 0;
    int maxPositional = 0;
    QString positionalName = {}; // as a "missing ..." refusal names it: "table ID", "NAME"
    CommandHandler handler = nullptr;
    // Another command whose usage `COMMAND --help` shows too ("table edit" takes table add's).
    QString alsoShow = {};

    // "table" for "table add"; empty for a command without a group ("run").
    QString group() const {
        return name.contains(QLatin1Char(' ')) ? name.section(QLatin1Char(' '), 0, 0) : QString();
    }
};

// Thrown by -h/--help anywhere after a command: prints that command's usage (all of it when
// `command` is empty or heads no entry) and exits 0.
struct HelpRequested {
    QString command;
};

} // namespace tidemark::cli
