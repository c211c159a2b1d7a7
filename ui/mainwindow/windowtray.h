// SPDX-License-Identifier: MIT
#pragma once

#include <QObject>

class QAction;
class QMenu;
class QSystemTrayIcon;
class QWidget;

namespace tidemark {

// The tray icon: a click shows and raises the window; its menu has Show, Run All and Quit (the
// window's own actions). Run notifications go through it too (RunNotifier::setTray). Put in the
// tray only where a tray exists; the menu is built either way.
class WindowTray : public QObject {
    Q_OBJECT
public:
    WindowTray(QWidget *window, QAction *runAll, QAction *quit);

    QSystemTrayIcon *icon() const { return m_icon; }
    QMenu *menu() const { return m_menu; }
    // Shown, un-minimized, raised and given the focus.
    void showWindow();

private:
    QWidget *m_window;
    QMenu *m_menu;
    QSystemTrayIcon *m_icon;
};

} // namespace tidemark
