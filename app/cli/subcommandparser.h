// SPDX-License-Identifier: MIT
#pragma once

#include "app/cli/commandspec.h"

#include <QCommandLineParser>
#include <QString>
#include <QStringList>

namespace tidemark::cli {

// The arguments of one command, parsed as its CommandSpec declares them (plus -w/--workspace
// and -h/--help, which every command takes). Every failure is a ValidationError naming the
// command and the option.
class SubcommandParser {
public:
    explicit SubcommandParser(const CommandSpec &spec);

    // Refuses unknown options and a wrong number of positional arguments; throws HelpRequested
    // for -h/--help.
    void parse(const QStringList &args);

    const QString &command() const { return m_command; }
    const QStringList &positional() const { return m_positional; }
    bool isSet(const QString &name) const { return m_parser.isSet(name); }
    QString value(const QString &name) const { return m_parser.value(name); }
    QStringList values(const QString &name) const { return m_parser.values(name); }
    // The value of a required option.
    QString required(const QString &name) const;

private:
    void addValue(const QStringList &names, const QString &valueName);
    QStringList negativesPositional(const QStringList &args) const;
    bool takesValue(const QString &arg) const;

    const CommandSpec &m_spec;
    QString m_command;
    QCommandLineParser m_parser;
    QStringList m_valueOptions;
    QStringList m_positional;
};

} // namespace tidemark::cli
