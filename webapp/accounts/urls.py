"""Sign-up, log-in, log-out, password change and the account page."""

from django.contrib.auth import views as auth_views
from django.urls import path

from webapp.accounts import views

urlpatterns = [
    path("", views.account, name="account"),
    path("signup/", views.signup, name="signup"),
    path(
        "login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("logout-everywhere/", views.logout_everywhere, name="logout-everywhere"),
    path("token/rotate/", views.token_rotate, name="account-token-rotate"),
    path("password/", views.PasswordChangeView.as_view(), name="password_change"),
    path(
        "password/done/",
        auth_views.PasswordChangeDoneView.as_view(),
        name="password_change_done",
    ),
]
