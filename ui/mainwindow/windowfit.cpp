// SPDX-License-Identifier: MIT
#include "ui/mainwindow/windowfit.h"

#include <QGuiApplication>
#include <QScreen>
#include <QWidget>

namespace tidemark {

namespace {

// A title bar and thin borders on common window managers; the client area is kept this much
// smaller than the available area before the real frame is known.
constexpr QMargins kFrameAllowance(4, 32, 4, 4);

QRect availableFor(const QWidget *window) {
    const QScreen *screen = window->screen() ? window->screen() : QGuiApplication::primaryScreen();
    return screen ? screen->availableGeometry() : QRect();
}

} // namespace

QRect fitToAvailable(const QRect &wanted, const QRect &available, const QMargins &frame) {
    if (!available.isValid())
        return wanted;
    const QRect room = available.marginsRemoved(frame);
    QRect fitted(wanted.topLeft(), wanted.size().boundedTo(room.size()));
    // Moved in from the right and bottom first, then from the left and top: a window as large as
    // the room ends exactly on it.
    if (fitted.right() > room.right())
        fitted.moveRight(room.right());
    if (fitted.bottom() > room.bottom())
        fitted.moveBottom(room.bottom());
    if (fitted.left() < room.left())
        fitted.moveLeft(room.left());
    if (fitted.top() < room.top())
        fitted.moveTop(room.top());
    return fitted;
}

QRect firstWindowGeometry(const QSize &preferred, const QRect &available, const QMargins &frame) {
    QRect wanted(QPoint(), preferred);
    wanted.moveCenter(available.center());
    return fitToAvailable(wanted, available, frame);
}

void fitWindowToScreen(QWidget *window) {
    const QRect fitted = fitToAvailable(window->geometry(), availableFor(window), kFrameAllowance);
    if (fitted != window->geometry())
        window->setGeometry(fitted);
}

void placeFirstWindow(QWidget *window, const QSize &preferred) {
    const QRect available = availableFor(window);
    if (available.isValid())
        window->setGeometry(firstWindowGeometry(preferred, available, kFrameAllowance));
    else
        window->resize(preferred);
}

} // namespace tidemark
