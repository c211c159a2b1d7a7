// SPDX-License-Identifier: MIT
#pragma once

#include <QWidget>

class QAction;
class QCheckBox;
class QLabel;
class QListWidget;
class QListWidgetItem;
class QPushButton;

namespace tidemark {

// What the window shows with no workspace open: what Tidemark does in one line, the ways in
// (New Workspace…, Open Workspace…, Open the Demo) and the recent workspaces, each opened with a
// click or Enter. The buttons trigger the window's own actions, so they say and do what the File
// menu does. "Reopen the last workspace on start" is the window's setting, shown here too.
class WelcomePage : public QWidget {
    Q_OBJECT
public:
    WelcomePage(QAction *newAction, QAction *openAction, QAction *openServerAction, QAction *demoAction,
                QAction *reopenLastAction, QWidget *parent = nullptr);

    // Newest first; a path whose file is gone is listed as missing (opening it offers to create it).
    void setRecent(const QStringList &paths);
    // A line under the buttons: what is happening (the demo being built) or what went wrong.
    void setNote(const QString &text);

    QListWidget *recentList() const { return m_recent; }
    QPushButton *demoButton() const { return m_demo; }
    QLabel *note() const { return m_note; }

signals:
    void recentChosen(const QString &path);

private:
    QPushButton *m_demo;
    QListWidget *m_recent;
    QLabel *m_recentTitle;
    QLabel *m_note;
};

} // namespace tidemark
