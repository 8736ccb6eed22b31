"""Sign-up, log-in and log-out pages."""

from django.contrib.auth import views as auth_views
from django.urls import path

from webapp.accounts import views

urlpatterns = [
    path("signup/", views.signup, name="signup"),
    path(
        "login/",
        auth_views.LoginView.as_view(redirect_authenticated_user=True),
        name="login",
    ),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
]
