// SPDX-License-Identifier: MIT
// What the package says about the command line, from the real tidemark-cli: the bash completion
// offers its commands and options (run in a real bash), the man page names every command the
// usage text lists, and every command an error message suggests exists.

#include "tests/support/testsupport.h"

#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

using namespace tidemark::test;

class TestCliReference : public QObject {
    Q_OBJECT

private slots:
    void initTestCase();
    void completionOffers_data();
    void completionOffers();
    void manPageNamesEveryCommand();
    void suggestedCommandsExist();
    void unknownGenerateKindIsRefused();

private:
    // The words bash offers for the command line `line` (the last word is being completed).
    QStringList complete(const QString &line);

    QTemporaryDir m_dir;
    QString m_completion;
};

void TestCliReference::initTestCase() {
    QVERIFY(m_dir.isValid());
    const CliResult generated = runCli({QStringLiteral("--generate"), QStringLiteral("bash-completion")});
    QVERIFY2(generated.exitCode == 0, qPrintable(generated.describe()));
    m_completion = m_dir.filePath(QStringLiteral("tidemark-cli"));
    QFile file(m_completion);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(generated.out.toUtf8());
}

QStringList TestCliReference::complete(const QString &line) {
    QStringList words = line.split(QLatin1Char(' '));
    QString array;
    for (const QString &word : words)
        array += QLatin1Char('\'') + word + QStringLiteral("' ");
    const QString script = QStringLiteral("source '%1'; COMP_WORDS=(%2); COMP_CWORD=%3; _tidemark_cli; "
                                          "printf '%s\\n' \"${COMPREPLY[@]}\"")
                               .arg(m_completion, array)
                               .arg(words.size() - 1);
    QProcess bash;
    bash.start(QStringLiteral("bash"), {QStringLiteral("-c"), script});
    if (!bash.waitForFinished(30000) || bash.exitCode() != 0)
        qWarning("bash: %s", bash.readAllStandardError().constData());
    return QString::fromUtf8(bash.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

void TestCliReference::completionOffers_data() {
    QTest::addColumn<QString>("line");
    QTest::addColumn<QStringList>("offered");
    QTest::addColumn<QStringList>("notOffered");
    const auto L = [](std::initializer_list<const char *> items) {
        QStringList list;
        for (const char *item : items)
            list << QString::fromLatin1(item);
        return list;
    };
    QTest::newRow("commands") << QStringLiteral("tidemark-cli ")
                              << L({"table", "connection", "run", "workspace", "help"}) << L({"add"});
    QTest::newRow("a prefix") << QStringLiteral("tidemark-cli sch") << L({"schedule"}) << L({"serve"});
    QTest::newRow("after -w FILE") << QStringLiteral("tidemark-cli -w a.tidemark ta") << L({"table"})
                                   << L({});
    QTest::newRow("subcommands") << QStringLiteral("tidemark-cli table ")
                                 << L({"add", "edit", "purge", "set-position", "restore"}) << L({"run"});
    QTest::newRow("options of table add") << QStringLiteral("tidemark-cli table add --wa")
                                          << L({"--watermark", "--watermark-type"}) << L({"--json"});
    QTest::newRow("options of table edit")
        << QStringLiteral("tidemark-cli -w x table edit 3 --re") << L({"--reset-position"}) << L({});
    QTest::newRow("options of run") << QStringLiteral("tidemark-cli run --")
                                    << L({"--table", "--dry-run", "--adopt"}) << L({"--from"});
    QTest::newRow("options of workspace apply")
        << QStringLiteral("tidemark-cli workspace apply doc.json --") << L({"--dry-run", "--prune"}) << L({});
}

void TestCliReference::completionOffers() {
    QFETCH(QString, line);
    QFETCH(QStringList, offered);
    QFETCH(QStringList, notOffered);
    const QStringList words = complete(line);
    for (const QString &word : offered)
        QVERIFY2(words.contains(word), qPrintable(QStringLiteral("'%1' not offered for '%2': %3")
                                                      .arg(word, line, words.join(QLatin1Char(' ')))));
    for (const QString &word : notOffered)
        QVERIFY2(!words.contains(word), qPrintable(QStringLiteral("'%1' offered for '%2'").arg(word, line)));
}

void TestCliReference::manPageNamesEveryCommand() {
    const CliResult man = runCli({QStringLiteral("--generate"), QStringLiteral("man")});
    QVERIFY2(man.exitCode == 0, qPrintable(man.describe()));
    QVERIFY(man.out.startsWith(QStringLiteral(".TH TIDEMARK-CLI 1")));
    // Every command the usage text lists ("  table pause ID | table resume ID"), as the
    // words before its arguments.
    const CliResult usage = runCli({QStringLiteral("--help")});
    const QRegularExpression command(QStringLiteral("^([a-z]+(?: [a-z][a-z-]+)?)(?: |$)"));
    QSet<QString> names;
    for (const QString &line : usage.out.split(QLatin1Char('\n'))) {
        if (!line.startsWith(QLatin1String("  ")) || line.at(2).isSpace())
            continue;
        for (const QString &part :
             line.trimmed().section(QStringLiteral("   "), 0, 0).split(QStringLiteral(" | ")))
            if (const auto match = command.match(part.trimmed()); match.hasMatch())
                names.insert(match.captured(1));
    }
    QVERIFY2(names.size() > 35, qPrintable(QStringList(names.values()).join(QLatin1Char(','))));
    for (const QString &name : std::as_const(names)) {
        QString roff = name;
        roff.replace(QLatin1Char('-'), QLatin1String("\\-"));
        QVERIFY2(man.out.contains(QStringLiteral(".SS ") + roff + QLatin1Char('\n')),
                 qPrintable(QStringLiteral("the man page has no section for '%1'").arg(name)));
    }
    // man itself reads it (when man is installed): no roff warnings.
    QProcess render;
    render.start(QStringLiteral("sh"),
                 {QStringLiteral("-c"),
                  QStringLiteral("command -v man >/dev/null || exit 77; "
                                 "tidemark_man=$(mktemp); cat > \"$tidemark_man\"; "
                                 "MANWIDTH=100 man --warnings -l \"$tidemark_man\" 2>&1 >/dev/null; "
                                 "rm -f \"$tidemark_man\"")});
    render.write(man.out.toUtf8());
    render.closeWriteChannel();
    QVERIFY(render.waitForFinished(60000));
    if (render.exitCode() != 77)
        QVERIFY2(render.readAll().trimmed().isEmpty(), "man reports warnings on the page");
}

// The commands that messages in the sources suggest ("see tidemark-cli table edit --help",
// "restore it with 'table restore 3'", "(table remove ID)") each exist: `help` knows them.
void TestCliReference::suggestedCommandsExist() {
    const QString root = QStringLiteral(TIDEMARK_SOURCE_DIR);
    const QStringList groups{
        QStringLiteral("table"),    QStringLiteral("connection"), QStringLiteral("schedule"),
        QStringLiteral("alert"),    QStringLiteral("workspace"),  QStringLiteral("run"),
        QStringLiteral("backfill"), QStringLiteral("history"),    QStringLiteral("verify"),
        QStringLiteral("init"),     QStringLiteral("serve"),      QStringLiteral("runners")};
    const QString group = groups.join(QLatin1Char('|'));
    const QList<QRegularExpression> patterns{
        // "tidemark-cli -w FILE table restore 3", "see tidemark-cli history --table"
        QRegularExpression(QStringLiteral("tidemark-cli (?:-w %\\d+ )?([a-z]+(?: [a-z][a-z-]+)?)")),
        // "with 'table purge %2'", "'run --adopt --table %1'"
        QRegularExpression(QStringLiteral("'((?:%1)(?: [a-z][a-z-]+)?)(?: [^']*)?'").arg(group)),
        // "use backfill 3 --from ...", "(see alert set)"
        QRegularExpression(
            QStringLiteral("\\b(?:use|see|with|try|then) '?((?:%1)(?: [a-z][a-z-]+)?)\\b").arg(group)),
        // "(table remove ID)"
        QRegularExpression(QStringLiteral("\\(((?:%1) [a-z][a-z-]+) (?:ID|NAME)").arg(group)),
    };
    QSet<QString> suggested;
    for (const char *folder : {"app", "model"}) {
        QDirIterator files(root + QLatin1Char('/') + QLatin1String(folder), {QStringLiteral("*.cpp")},
                           QDir::Files, QDirIterator::Subdirectories);
        while (files.hasNext()) {
            QFile file(files.next());
            QVERIFY(file.open(QIODevice::ReadOnly));
            const QString text = QString::fromUtf8(file.readAll());
            for (const QRegularExpression &pattern : patterns) {
                for (auto it = pattern.globalMatch(text); it.hasNext();)
                    suggested.insert(it.next().captured(1));
            }
        }
    }
    QVERIFY2(suggested.size() > 10, qPrintable(QStringList(suggested.values()).join(QLatin1Char(','))));
    suggested.remove(QStringLiteral("help")); // "tidemark-cli help COMMAND": help itself
    for (const QString &phrase : std::as_const(suggested)) {
        // "table list" exists; "history --table" was cut to "history"; a second word that is not
        // a subcommand of a command without subcommands ("run again") is refused by help.
        QStringList words = phrase.split(QLatin1Char(' '));
        const CliResult help = runCli(QStringList{QStringLiteral("help")} + words);
        if (help.exitCode != 0 && words.size() == 2) {
            // Only a group's second word must be a subcommand: "history --table" came out as
            // "history", but "run again" would still be a run.
            const CliResult asGroup = runCli({words.first(), QStringLiteral("no-such-subcommand")});
            const bool isGroup = asGroup.err.contains(QStringLiteral("unknown subcommand"));
            QVERIFY2(!isGroup && runCli({QStringLiteral("help"), words.first()}).exitCode == 0,
                     qPrintable(QStringLiteral("a message suggests '%1', which is no command").arg(phrase)));
            continue;
        }
        QVERIFY2(help.exitCode == 0,
                 qPrintable(QStringLiteral("a message suggests '%1', which is no command: %2")
                                .arg(phrase, help.describe())));
    }
}

void TestCliReference::unknownGenerateKindIsRefused() {
    const CliResult refused = runCli({QStringLiteral("--generate"), QStringLiteral("zsh")});
    QCOMPARE(refused.exitCode, 2);
    QVERIFY2(refused.err.contains(QStringLiteral("'zsh'")), qPrintable(refused.describe()));
}

QTEST_GUILESS_MAIN(TestCliReference)
#include "tst_clireference.moc"
