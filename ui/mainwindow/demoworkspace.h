// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>

class QProcess;

namespace tidemark {

// The demo workspace of a source checkout: scripts/make-demo.sh makes demo/demo.tidemark (a
// sample shop database, a target, seven tables that end in every state, three schedules) with
// tidemark-cli. Found from the program's own folder (build/app/tidemark finds ../../scripts);
// an installed Tidemark has no demo, and says so rather than guess.
class DemoWorkspace : public QObject {
    Q_OBJECT
public:
    explicit DemoWorkspace(QObject *parent = nullptr);

    // False: no make-demo.sh found; unavailableReason() says where it was looked for.
    bool isAvailable() const { return !m_script.isEmpty(); }
    QString unavailableReason() const;
    QString workspacePath() const;
    // Made before (make-demo.sh leaves demo/.complete when it is done).
    bool isMade() const;
    bool isMaking() const { return m_process != nullptr; }

    // Runs make-demo.sh (a few seconds); made() or failed() follows once.
    void make();

signals:
    void made(const QString &workspacePath);
    void failed(const QString &error);

private:
    QString m_script;
    QString m_cli;
    QString m_demoDir;
    QProcess *m_process = nullptr;
};

} // namespace tidemark
