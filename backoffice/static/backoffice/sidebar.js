'use strict';
// The admin's sidebar starts collapsed on a narrow screen (issue 27 §4; docs/moderation.md, "Pages that fit"):
// Django's nav_sidebar.js (deferred, so it runs after this) opens it unless the browser stored "false". Until the
// moderator chooses (the toggle stores the choice), a window narrower than NARROW px reads "false" once, and the
// stored value is taken back after the page has set itself up, so widening the window later opens it again.
{
    const KEY = 'django.admin.navSidebarIsOpen';
    const NARROW = 1200;
    if (localStorage.getItem(KEY) === null && window.innerWidth < NARROW) {
        localStorage.setItem(KEY, 'false');
        const chosen = () => { localStorage.setItem(KEY + '.chosen', '1'); };
        window.addEventListener('DOMContentLoaded', () => {
            const toggle = document.getElementById('toggle-nav-sidebar');
            if (toggle !== null) { toggle.addEventListener('click', chosen); }
            if (localStorage.getItem(KEY + '.chosen') === null) { localStorage.removeItem(KEY); }
        });
    }
}
