// SPDX-License-Identifier: MIT
#include "app/cli/generated.h"

#include "app/cli/commandtable.h"
#include "model/common/error.h"

#include <QStringList>

namespace tidemark::cli {

namespace {

// "--json --table" for a command's options; -w/--workspace and --help are everyone's.
QString optionWords(const CommandSpec &spec) {
    QStringList words{QStringLiteral("--workspace"), QStringLiteral("--help")};
    for (const OptionSpec &option : spec.options)
        words << QStringLiteral("--") + option.name;
    return words.join(QLatin1Char(' '));
}

QString valueOptions(const CommandSpec &spec) {
    QStringList words{QStringLiteral("-w"), QStringLiteral("--workspace")};
    for (const OptionSpec &option : spec.options) {
        if (option.takesValue())
            words << QStringLiteral("--") + option.name;
    }
    return words.join(QLatin1Char(' '));
}

// roff text: a backslash is written \e, and a line starting with . or ' must not be a request.
QString roff(QString text) {
    text.replace(QLatin1Char('\\'), QLatin1String("\\e"));
    text.replace(QLatin1Char('-'), QLatin1String("\\-"));
    if (text.startsWith(QLatin1Char('.')) || text.startsWith(QLatin1Char('\'')))
        text.prepend(QLatin1String("\\&"));
    return text;
}

} // namespace

QString generatedFile(const QString &kind) {
    if (kind == QLatin1String("bash-completion"))
        return bashCompletion();
    if (kind == QLatin1String("man"))
        return manPage();
    throw ValidationError(QStringLiteral("--generate: '%1' is not bash-completion or man").arg(kind));
}

QString bashCompletion() {
    QString groups;
    QString cases;
    for (const QString &top : topLevelCommands()) {
        if (!isCommandGroup(top))
            continue;
        QStringList subs;
        for (const CommandSpec &spec : commandTable()) {
            if (spec.group() == top)
                subs << spec.name.section(QLatin1Char(' '), 1);
        }
        groups += QStringLiteral("        %1) subs=\"%2\" ;;\n").arg(top, subs.join(QLatin1Char(' ')));
    }
    for (const CommandSpec &spec : commandTable()) {
        cases += QStringLiteral("        \"%1\") opts=\"%2\"; values=\"%3\" ;;\n")
                     .arg(spec.name, optionWords(spec), valueOptions(spec));
    }
    return QStringLiteral(
               R"(# bash completion for tidemark-cli, written by tidemark-cli --generate bash-completion
_tidemark_cli() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=""
    ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()
    local i command="" sub="" subs=""
    # The command's words, after the global options (-w FILE and the like).
    for ((i = 1; i < COMP_CWORD; i++)); do
        case "${COMP_WORDS[i]}" in
            -w|--workspace) ((i++)); continue ;;
            -*) continue ;;
        esac
        if [[ -z $command ]]; then command=${COMP_WORDS[i]}; else sub=${COMP_WORDS[i]}; break; fi
    done
    if [[ $prev == -w || $prev == --workspace ]]; then
        mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return
    fi
    if [[ -z $command ]]; then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "--workspace --help --version" -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -W "%1 help" -- "$cur")
        fi
        return
    fi
    case "$command" in
%2    esac
    # A command that also heads subcommands ("run", "run cancel") takes options of its own.
    if [[ -n $subs && -z $sub && $cur != -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$subs" -- "$cur"); return
    fi
    local name=$command opts="" values=""
    [[ -n $subs && " $subs " == *" $sub "* ]] && name="$command $sub"
    case "$name" in
%3    esac
    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
    elif [[ " $values " == *" $prev "* ]]; then
        mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
}
complete -F _tidemark_cli tidemark-cli
)")
        .arg(topLevelCommands().join(QLatin1Char(' ')), groups, cases);
}

QString manPage() {
    QString page =
        QStringLiteral(
            ".TH TIDEMARK-CLI 1 \"\" \"tidemark-cli %1\" \"User Commands\"\n"
            ".SH NAME\n"
            "tidemark-cli \\- incremental table-copy jobs with watermarks, from the command line\n"
            ".SH SYNOPSIS\n"
            ".B tidemark-cli\n"
            "[\\fB\\-w\\fR \\fIFILE\\fR | \\fB\\-\\-workspace\\fR \\fIFILE\\fR] \\fICOMMAND\\fR ...\n"
            ".br\n"
            ".B tidemark-cli\n"
            "\\fICOMMAND\\fR \\fB\\-\\-help\\fR | \\fBhelp\\fR \\fICOMMAND\\fR\n"
            ".SH DESCRIPTION\n"
            "Each command works on one workspace: the file given with \\fB\\-w\\fR, else "
            "\\fB$TIDEMARK_WORKSPACE\\fR.\n"
            ".SH COMMANDS\n")
            .arg(QStringLiteral(TIDEMARK_VERSION));
    for (const CommandSpec &spec : commandTable()) {
        page += QStringLiteral(".SS %1\n").arg(roff(spec.name));
        const QString usage = commandUsage(spec.name);
        // The entries as the usage text has them, without its head and tail lines.
        QStringList lines = usage.split(QLatin1Char('\n'));
        lines = lines.mid(2, lines.size() - 5);
        page += QStringLiteral(".nf\n");
        for (const QString &line : std::as_const(lines))
            page += roff(line.mid(2)) + QLatin1Char('\n');
        page += QStringLiteral(".fi\n");
        for (const OptionSpec &option : spec.options) {
            page += QStringLiteral(".TP\n.B \\-\\-%1%2\n%3\n")
                        .arg(roff(option.name),
                             option.takesValue() ? QStringLiteral(" \\fI%1\\fR").arg(roff(option.valueName))
                                                 : QString(),
                             roff(option.help));
        }
    }
    const QString usage = usageText();
    const QString tail = usage.mid(usage.indexOf(QLatin1String("\nDurations:")) + 1);
    page += QStringLiteral(".SH NOTES\n.nf\n");
    for (const QString &line : tail.split(QLatin1Char('\n')))
        page += roff(line) + QLatin1Char('\n');
    page += QStringLiteral(".fi\n");
    return page;
}

} // namespace tidemark::cli
