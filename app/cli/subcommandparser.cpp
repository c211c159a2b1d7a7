// SPDX-License-Identifier: MIT
#include "app/cli/subcommandparser.h"

#include "app/cli/clisession.h"
#include "model/common/error.h"

#include <QRegularExpression>

namespace tidemark::cli {

SubcommandParser::SubcommandParser(const CommandSpec &spec)
    : m_spec(spec)
    , m_command(spec.name) {
    m_parser.setSingleDashWordOptionMode(QCommandLineParser::ParseAsLongOptions);
    addValue({QStringLiteral("w"), QStringLiteral("workspace")}, QStringLiteral("FILE"));
    addValue({QStringLiteral("workspace-schema")}, QStringLiteral("NAME"));
    m_parser.addOption(QCommandLineOption(QStringList{QStringLiteral("h"), QStringLiteral("help")}));
    for (const OptionSpec &option : spec.options) {
        if (option.takesValue())
            addValue({option.name}, option.valueName);
        else
            m_parser.addOption(QCommandLineOption(option.name));
    }
}

void SubcommandParser::addValue(const QStringList &names, const QString &valueName) {
    m_parser.addOption(QCommandLineOption(names, QString(), valueName));
    m_valueOptions += names;
}

void SubcommandParser::parse(const QStringList &args) {
    if (!m_parser.parse(QStringList{QStringLiteral("tidemark-cli")} + negativesPositional(args)))
        throw ValidationError(
            QStringLiteral("%1: %2 (see tidemark-cli %1 --help)")
                .arg(m_command,
                     m_parser.errorText().chopped(m_parser.errorText().endsWith(QLatin1Char('.')) ? 1 : 0)));
    if (m_parser.isSet(QStringLiteral("help")))
        throw HelpRequested{m_command};
    if (m_parser.isSet(QStringLiteral("workspace-schema")))
        setWorkspaceSchema(m_parser.value(QStringLiteral("workspace-schema")));
    m_positional = m_parser.positionalArguments();
    if (m_positional.size() < m_spec.minPositional)
        throw ValidationError(QStringLiteral("%1: missing %2").arg(m_command, m_spec.positionalName));
    if (m_positional.size() > m_spec.maxPositional)
        throw ValidationError(QStringLiteral("%1: unexpected argument '%2'")
                                  .arg(m_command, m_positional.value(m_spec.maxPositional)));
}

QString SubcommandParser::required(const QString &name) const {
    if (!m_parser.isSet(name))
        throw ValidationError(QStringLiteral("%1: option --%2 is required").arg(m_command, name));
    return m_parser.value(name);
}

// `args` with every negative number that is not an option's value moved behind a "--": no
// option is named by digits, so `table pause -1` is the ID -1 (refused by its range check,
// naming it), not an unknown option '1'.
QStringList SubcommandParser::negativesPositional(const QStringList &args) const {
    static const QRegularExpression negative(QStringLiteral("^-[0-9]+$"));
    QStringList options;
    QStringList negatives;
    for (qsizetype i = 0; i < args.size(); ++i) {
        const QString &arg = args[i];
        if (arg == QLatin1String("--"))
            return options + args.mid(i) + negatives;
        if (!takesValue(args.value(i - 1)) && negative.match(arg).hasMatch())
            negatives.append(arg);
        else
            options.append(arg);
    }
    if (negatives.isEmpty())
        return options;
    return options + QStringList{QStringLiteral("--")} + negatives;
}

// Whether `arg` is a value option ("--count", "-w"), whose next argument is its value.
bool SubcommandParser::takesValue(const QString &arg) const {
    if (!arg.startsWith(QLatin1Char('-')) || arg.contains(QLatin1Char('=')))
        return false;
    return m_valueOptions.contains(arg.mid(arg.startsWith(QLatin1String("--")) ? 2 : 1));
}

} // namespace tidemark::cli
