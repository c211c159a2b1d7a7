// SPDX-License-Identifier: MIT
#pragma once

#include <QDialog>
#include <QList>

class QAction;

namespace tidemark {

// Help › Keyboard Shortcuts: one row per action that has a shortcut, read from the actions
// themselves so the list cannot drift from what the keys do.
class ShortcutsDialog : public QDialog {
    Q_OBJECT
public:
    ShortcutsDialog(const QList<QAction *> &actions, QWidget *parent = nullptr);
};

// Help › Where Is the Log File: the current workspace's log path, with a button that opens
// its folder in the file manager.
class LogFileDialog : public QDialog {
    Q_OBJECT
public:
    LogFileDialog(const QString &workspacePath, QWidget *parent = nullptr);
};

// Help › About: version, Qt version (built against and running), license.
QString aboutText();

} // namespace tidemark
