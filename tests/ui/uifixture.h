// SPDX-License-Identifier: MIT
#pragma once

// A workspace with a SQLite source ("src") and target ("dst") in a temporary directory, for
// the GUI suites: they drive the real core behind the models and panels. The workspace is a
// file, or a schema of the throwaway cluster in a suite's server run.

#include "model/common/sqlquote.h"
#include "model/engine/tablesetup.h"
#include "model/models/controltablemodel.h"
#include "model/storage/workspace.h"
#include "tests/support/testsupport.h"
#include "tests/support/workspacebackend.h"
#include "ui/controltable/controltablepanel.h"
#include "ui/mainwindow/mainwindow.h"

#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <memory>

namespace tidemark::test {

class UiFixture {
public:
    UiFixture() {
        // A server workspace in a suite's server run (tests/CMakeLists.txt, workspacebackend.h).
        wsPath = testWorkspaceLocation(m_dir, QStringLiteral("ws.tidemark"));
        src = m_dir.filePath(QStringLiteral("source.db"));
        dst = m_dir.filePath(QStringLiteral("target.db"));
        auto ws = Workspace::create(wsPath);
        for (const auto &[name, path] :
             {std::pair{QStringLiteral("src"), src}, std::pair{QStringLiteral("dst"), dst}}) {
            ConnectionSpec spec;
            spec.name = name;
            spec.path = path;
            ws->addConnection(spec);
        }
    }

    bool isValid() const { return m_dir.isValid(); }
    QString filePath(const QString &name) const { return m_dir.filePath(name); }

    static TableDraft draft(const QString &table, const QString &watermark,
                            WriteMode mode = WriteMode::Append) {
        TableDraft draft;
        draft.spec.sourceConnection = QStringLiteral("src");
        draft.spec.sourceTable = table;
        draft.spec.targetConnection = QStringLiteral("dst");
        draft.spec.targetTable = table;
        draft.spec.watermarkColumn = watermark;
        draft.spec.mode = mode;
        return draft;
    }

    // Validates and adds a table through the core, as the dialog does.
    qint64 addTable(const TableDraft &draft) {
        auto ws = Workspace::open(wsPath);
        return ws->addTable(prepareTable(*ws, draft));
    }

    TableSpec prepared(const TableDraft &draft) {
        auto ws = Workspace::open(wsPath);
        return prepareTable(*ws, draft);
    }

    std::unique_ptr<Workspace> open() const { return Workspace::open(wsPath); }

    QString wsPath;
    QString src;
    QString dst;

private:
    QTemporaryDir m_dir;
};

// Shows `window`, opens the fixture's workspace in it and waits until the control table shows
// `tables` rows (check QTest::currentTestFailed() after).
inline void openInWindow(const UiFixture &fixture, MainWindow &window, int tables) {
    window.show();
    QSignalSpy opened(&window, &MainWindow::workspaceOpened);
    window.openWorkspace(fixture.wsPath);
    QTRY_COMPARE(opened.size(), 1);
    QTRY_COMPARE(window.controlTable()->model()->rowCount(), tables);
}

} // namespace tidemark::test
