// SPDX-License-Identifier: MIT
#pragma once

// The fixture the CLI suites share (tests/cli/tst_*.cpp), as a second base of the test class.

#include "model/storage/workspacelocation.h"
#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"

#include <QTemporaryDir>
#include <QTest>

#include <memory>

// `result` is evaluated once: QVERIFY2 evaluates its message even when the check passes, so
// naming the command twice would run it twice.
#define CLI_EXIT(result, code)                                                                               \
    do {                                                                                                     \
        const auto cliExitResult = (result);                                                                 \
        QVERIFY2(cliExitResult.exitCode == (code), qPrintable(cliExitResult.describe()));                    \
    } while (false)

namespace tidemark::test {

// Per test function a fresh folder (startFixture() in init(), stopFixture() in cleanup()) holding
// the workspace m_ws and the SQLite files m_src and m_dst (created when first written), and
// tidemark-cli run on a workspace with that folder as its working directory. A suite registered
// on server workspaces too (tests/CMakeLists.txt) gets m_ws in a schema of its own there.
class CliFixture {
protected:
    void startFixture() {
        m_dir = std::make_unique<QTemporaryDir>(fastTempTemplate());
        QVERIFY(m_dir->isValid());
        m_ws = testWorkspaceLocation(*m_dir, QStringLiteral("ws.tidemark"));
        // Where a server workspace's log goes (WorkspaceLocation::logFileFor): the CLI processes
        // inherit it, so each test's log stays in its folder.
        qputenv("XDG_STATE_HOME", path(QStringLiteral("state")).toLocal8Bit());
        m_src = path(QStringLiteral("src.db"));
        m_dst = path(QStringLiteral("dst.db"));
    }
    void stopFixture() { m_dir.reset(); }
    // The log the CLI writes for m_ws: beside a file, under the state folder for a server.
    QString workspaceLogPath() const { return WorkspaceLocation::logFileFor(m_ws); }

    QString path(const QString &name) const { return m_dir->filePath(name); }
    CliResult cliOn(const QString &workspace, const QStringList &args) const {
        return runCli(QStringList{QStringLiteral("-w"), workspace} + args, m_dir->path());
    }
    CliResult cli(const QStringList &args) const { return cliOn(m_ws, args); }

    // init + the SQLite connections "src" (m_src) and "dst" (m_dst) in `workspace`.
    void setupConnections(const QString &workspace) {
        CLI_EXIT(cliOn(workspace, {QStringLiteral("init")}), 0);
        CLI_EXIT(cliOn(workspace, {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("src"),
                                   QStringLiteral("--sqlite"), m_src}),
                 0);
        CLI_EXIT(cliOn(workspace, {QStringLiteral("connection"), QStringLiteral("add"), QStringLiteral("dst"),
                                   QStringLiteral("--sqlite"), m_dst}),
                 0);
    }
    void setupConnections() { setupConnections(m_ws); }

    // `table add ARGS` on `workspace`, which must succeed: the printed id (0, the test failed, if not).
    qint64 addTableOn(const QString &workspace, const QStringList &args) const {
        const CliResult result =
            cliOn(workspace, QStringList{QStringLiteral("table"), QStringLiteral("add")} + args);
        bool ok = false;
        const qint64 id = result.out.trimmed().toLongLong(&ok);
        if (result.exitCode != 0 || !ok) {
            QTest::qFail(qPrintable(QStringLiteral("table add failed: ") + result.describe()), __FILE__,
                         __LINE__);
            return 0;
        }
        return id;
    }
    qint64 addTable(const QStringList &args) const { return addTableOn(m_ws, args); }

    std::unique_ptr<QTemporaryDir> m_dir;
    QString m_ws;
    QString m_src;
    QString m_dst;
};

} // namespace tidemark::test
