// SPDX-License-Identifier: MIT
#include "ui/mainwindow/windowtray.h"

#include <QAction>
#include <QGuiApplication>
#include <QMenu>
#include <QSystemTrayIcon>
#include <QWidget>

namespace tidemark {

WindowTray::WindowTray(QWidget *window, QAction *runAll, QAction *quit)
    : QObject(window)
    , m_window(window)
    , m_menu(new QMenu(window))
    , m_icon(new QSystemTrayIcon(QGuiApplication::windowIcon(), this)) {
    m_menu->setObjectName(QStringLiteral("trayMenu"));
    QAction *show = m_menu->addAction(tr("&Show Tidemark"), this, &WindowTray::showWindow);
    show->setObjectName(QStringLiteral("trayShow"));
    m_menu->addAction(runAll);
    m_menu->addSeparator();
    m_menu->addAction(quit);
    m_icon->setToolTip(QStringLiteral("Tidemark"));
    m_icon->setContextMenu(m_menu);
    connect(m_icon, &QSystemTrayIcon::activated, this, [this](QSystemTrayIcon::ActivationReason reason) {
        if (reason == QSystemTrayIcon::Trigger || reason == QSystemTrayIcon::DoubleClick)
            showWindow();
    });
    if (QSystemTrayIcon::isSystemTrayAvailable())
        m_icon->show();
}

void WindowTray::showWindow() {
    m_window->show();
    m_window->setWindowState((m_window->windowState() & ~Qt::WindowMinimized) | Qt::WindowActive);
    m_window->raise();
    m_window->activateWindow();
}

} // namespace tidemark
