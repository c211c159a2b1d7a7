// SPDX-License-Identifier: MIT
#include "app/cli/commands.h"

#include "app/cli/clisession.h"
#include "app/cli/commandtable.h"
#include "app/cli/generated.h"
#include "app/cli/output.h"
#include "app/cli/subcommandparser.h"
#include "model/common/error.h"

namespace tidemark::cli {

int Commands::execute(const QStringList &arguments) {
    try {
        const QStringList args = arguments.mid(1);
        qsizetype i = 0;
        for (; i < args.size() && args[i].startsWith(QLatin1Char('-')); ++i) {
            const QString &arg = args[i];
            if (arg == QLatin1String("-w") || arg == QLatin1String("--workspace")) {
                if (i + 1 >= args.size())
                    throw ValidationError(QStringLiteral("option %1 needs a FILE").arg(arg));
                m_session.setWorkspaceOption(args[++i]);
            } else if (arg.startsWith(QLatin1String("--workspace="))) {
                m_session.setWorkspaceOption(arg.mid(12));
            } else if (arg == QLatin1String("--workspace-schema")) {
                if (i + 1 >= args.size())
                    throw ValidationError(QStringLiteral("option %1 needs a NAME").arg(arg));
                setWorkspaceSchema(args[++i]);
            } else if (arg.startsWith(QLatin1String("--workspace-schema="))) {
                setWorkspaceSchema(arg.mid(19));
            } else if (arg.startsWith(QLatin1String("-w")) && !arg.startsWith(QLatin1String("--"))) {
                m_session.setWorkspaceOption(arg.mid(2));
            } else if (arg == QLatin1String("--version") || arg == QLatin1String("-v")) {
                writeOut(QStringLiteral("tidemark-cli %1\n").arg(QStringLiteral(TIDEMARK_VERSION)));
                return 0;
            } else if (arg == QLatin1String("--help") || arg == QLatin1String("-h")) {
                writeOut(usageText());
                return 0;
            } else if (arg == QLatin1String("--generate")) {
                // Used by the build for the package's files; not part of the usage text.
                writeOut(generatedFile(args.value(i + 1)));
                return 0;
            } else if (arg == QLatin1String("--")) {
                ++i;
                break;
            } else {
                throw ValidationError(
                    QStringLiteral("unknown option '%1' (see tidemark-cli --help)").arg(arg));
            }
        }
        if (i >= args.size())
            throw ValidationError(QStringLiteral("no command given (see tidemark-cli --help)"));
        return dispatch(args[i], args.mid(i + 1));
    } catch (const HelpRequested &help) {
        const QString usage = help.command.isEmpty() ? QString() : commandUsage(help.command);
        writeOut(usage.isEmpty() ? usageText() : usage);
        return 0;
    } catch (const ValidationError &error) {
        writeError(error.message());
        return 2;
    } catch (const Error &error) {
        writeError(error.message());
        return 1;
    } catch (const std::exception &error) {
        writeError(QString::fromLocal8Bit(error.what()));
        return 1;
    }
}

int Commands::dispatch(const QString &command, const QStringList &rest) {
    if (command == QLatin1String("help")) {
        if (rest.isEmpty())
            throw HelpRequested{};
        const QString asked = rest.join(QLatin1Char(' '));
        if (commandUsage(asked).isEmpty())
            throw ValidationError(
                QStringLiteral("help: unknown command '%1' (see tidemark-cli --help)").arg(asked));
        throw HelpRequested{asked};
    }
    // `table --help`, `run -h`: before any subcommand is looked up, so a group answers too.
    if (const QString first = rest.value(0);
        (first == QLatin1String("--help") || first == QLatin1String("-h")) &&
        !commandUsage(command).isEmpty())
        throw HelpRequested{command};
    // "table add", and "run cancel 7" beside "run" (a command that also heads subcommands).
    const QString sub = rest.value(0);
    if (const CommandSpec *spec = sub.isEmpty() ? nullptr : findCommand(command + QLatin1Char(' ') + sub))
        return runCommand(*spec, rest.mid(1));
    if (const CommandSpec *spec = findCommand(command))
        return runCommand(*spec, rest);
    if (!isCommandGroup(command))
        throw ValidationError(QStringLiteral("unknown command '%1' (see tidemark-cli --help)").arg(command));
    if (sub.isEmpty())
        throw ValidationError(
            QStringLiteral("%1: missing subcommand (see tidemark-cli %1 --help)").arg(command));
    throw ValidationError(
        QStringLiteral("%1: unknown subcommand '%2' (see tidemark-cli %1 --help)").arg(command, sub));
}

int Commands::runCommand(const CommandSpec &spec, const QStringList &args) {
    SubcommandParser parser(spec);
    parser.parse(args);
    m_session.takeOptions(parser);
    m_session.setCommand(spec.name);
    return spec.handler(m_session, parser);
}

} // namespace tidemark::cli
